//! Scopes of a tool, a prompt and a resource, on every wire and in every
//! era (`basic/authorization/index.mdx` § Scope Challenge Handling,
//! § Runtime Insufficient Scope Errors): a caller whose principal lacks
//! what the target needs is refused it, and nothing runs, whether it
//! speaks 2026-07-28 or inside a 2025-11-25 or 2025-06-18 session, over
//! stdio (the application's principal), the native HTTP/1.1 listener, or
//! a request a host HTTP stack parsed (what snodo-hyper hands over).
//!
//! Requests and answers are literal JSON; on HTTP the status and the
//! `WWW-Authenticate` challenge are literal too.

mod support;

use snodo_proto::CompletionRequest;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;
use snodo_proto::http::Head;
use snodo_proto::{
    Authorization, CallToolResult, Completion, Connection, GetPromptResult, Implementation,
    Instant, NoArgs, Notifications, Output, Principal, Prompt, ReadResourceResult, Rejection,
    Resource, ResourceArgs, ResourceContents, ResourceTemplate, Service, Tool, Transport,
};
use support::{block_on, Harness};

const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const FORBIDDEN: &str =
    r#"{"code":-32600,"message":"Forbidden: the token lacks a required scope"}"#;

/// `narrow` holds the endpoint's scope only; `wide` every scope.
fn principal(token: &str) -> Option<Principal> {
    match token {
        "narrow" => Some(Principal::new("ann", ["mcp"]).audience(["https://mcp.example.com/mcp"])),
        "wide" => Some(
            Principal::new(
                "bo",
                ["mcp", "tools:secret", "prompts:secret", "notes:secret"],
            )
            .audience(["https://mcp.example.com/mcp"]),
        ),
        // Granted one broad scope, which implies the rest (below).
        "all" => Some(Principal::new("dee", ["all"]).audience(["https://mcp.example.com/mcp"])),
        // Every scope, but issued for another server (§ Token Handling).
        "foreign" => Some(
            Principal::new("eve", ["mcp", "tools:secret"])
                .audience(["https://other.example.com/mcp"]),
        ),
        _ => None,
    }
}

/// The service, counting every handler that runs. On stdio the caller is
/// `stdio_as` (no tokens there).
fn service(stdio_as: &str, ran: &Arc<AtomicUsize>) -> Service {
    service_with(stdio_as, ran, |auth| auth)
}

/// [`service`], with more set on its authorization.
fn service_with(
    stdio_as: &str,
    ran: &Arc<AtomicUsize>,
    more: impl FnOnce(Authorization) -> Authorization,
) -> Service {
    let auth = more(
        Authorization::new("https://mcp.example.com/mcp", |token: &str| {
            principal(token).ok_or_else(|| Rejection("unknown token".into()))
        })
        .authorization_server("https://auth.example.com")
        .require(["mcp"])
        .tool_scopes("secret_tool", ["tools:secret"])
        .prompt_scopes("secret_prompt", ["prompts:secret"])
        .resource_scopes("notes://secret", ["notes:secret"])
        .template_scopes("notes://vault/{id}", ["notes:secret"]),
    );
    let (a, b, c, d, e) = (
        ran.clone(),
        ran.clone(),
        ran.clone(),
        ran.clone(),
        ran.clone(),
    );
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .stdio_principal(principal(stdio_as).unwrap())
        .notifications(Notifications::default().resource_updates())
        .tool(
            Tool::new("secret_tool", "Needs tools:secret"),
            move |_: NoArgs| {
                a.fetch_add(1, Ordering::SeqCst);
                async { CallToolResult::text("ran") }
            },
        )
        .prompt(
            Prompt::new("secret_prompt", "Needs prompts:secret"),
            move |_: NoArgs| {
                b.fetch_add(1, Ordering::SeqCst);
                async { Ok(GetPromptResult::new(vec![])) }
            },
        )
        .resource(
            Resource::new("notes://secret", "Needs notes:secret"),
            move |args: ResourceArgs| {
                c.fetch_add(1, Ordering::SeqCst);
                async move {
                    Ok(ReadResourceResult::new(vec![ResourceContents::text(
                        args.uri,
                        "text/plain",
                        "the secret",
                    )]))
                }
            },
        )
        .tool(Tool::new("open_tool", "Needs nothing"), |_: NoArgs| async {
            CallToolResult::text("open")
        })
        .tool(
            Tool::new("my_scopes", "The caller's scopes"),
            |_: NoArgs, ctx: snodo_proto::Context| async move {
                CallToolResult::text(
                    ctx.principal()
                        .map_or(String::new(), |p| p.scopes.join(" ")),
                )
            },
        )
        .prompt(
            Prompt::new("open_prompt", "Needs nothing"),
            |_: NoArgs| async { Ok(GetPromptResult::new(vec![])) },
        )
        .resource(
            Resource::new("notes://public", "Needs nothing"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "public",
                )]))
            },
        )
        .resource_template(
            ResourceTemplate::new("notes://vault/{id}", "Needs notes:secret"),
            move |args: ResourceArgs| {
                e.fetch_add(1, Ordering::SeqCst);
                async move {
                    Ok(ReadResourceResult::new(vec![ResourceContents::text(
                        args.uri,
                        "text/plain",
                        "vaulted",
                    )]))
                }
            },
        )
        .completer(move |_: CompletionRequest| {
            d.fetch_add(1, Ordering::SeqCst);
            async { Ok(Completion::new(vec![])) }
        })
        .build()
        .unwrap()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    /// Lines on stdio, the caller named by the application.
    Stdio,
    /// HTTP/1.1 bytes through proto's codec (the native listener).
    Http,
    /// One request per connection, parsed by a host stack (snodo-hyper).
    Parts,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Era {
    Stateless,
    Session(&'static str),
}

const ERAS: [Era; 3] = [
    Era::Stateless,
    Era::Session("2025-11-25"),
    Era::Session("2025-06-18"),
];

/// An answer: the HTTP status and `WWW-Authenticate` (stdio: 0 and
/// none) and the JSON-RPC message.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    challenge: Option<String>,
    message: Value,
}

/// A client of one era on one wire, holding the token `token`.
struct Client {
    wire: Wire,
    era: Era,
    token: &'static str,
    service: Service,
    stdio: Option<Harness>,
    session: Option<String>,
}

impl Client {
    fn new(wire: Wire, era: Era, token: &'static str, ran: &Arc<AtomicUsize>) -> Client {
        Client::of(service(token, ran), wire, era, token)
    }

    /// A client of `service`, which serves stdio as `token`'s principal.
    fn of(service: Service, wire: Wire, era: Era, token: &'static str) -> Client {
        let stdio = (wire == Wire::Stdio).then(|| Harness::new(&service, Transport::Stdio));
        let mut client = Client {
            wire,
            era,
            token,
            service,
            stdio,
            session: None,
        };
        if let Era::Session(version) = era {
            let init = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
            );
            let answer = client.exchange("initialize", None, &init);
            assert_eq!(answer.message["result"]["protocolVersion"], version);
            client.exchange(
                "notifications/initialized",
                None,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            );
        }
        client
    }

    /// Send the request `id` of `method` with `params` (a JSON object's
    /// members, without `_meta`).
    fn request(&mut self, method: &str, name: Option<&str>, params: &str) -> Answer {
        let meta = match self.era {
            Era::Stateless => {
                r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
            }
            Era::Session(_) => r#""_meta":{}"#,
        };
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"{method}","params":{{{params},{meta}}}}}"#
        );
        self.exchange(method, name, &body)
    }

    fn exchange(&mut self, method: &str, name: Option<&str>, body: &str) -> Answer {
        if let Some(h) = &mut self.stdio {
            let out = h.send(format!("{body}\n").as_bytes());
            return Answer {
                status: 0,
                challenge: None,
                message: if out.is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(out.trim_end()).unwrap()
                },
            };
        }
        let mut headers: Vec<(String, String)> = vec![
            ("Host".into(), "127.0.0.1".into()),
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
            ("Authorization".into(), format!("Bearer {}", self.token)),
        ];
        match (self.era, &self.session) {
            (Era::Stateless, _) => {
                headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
                headers.push(("Mcp-Method".into(), method.into()));
                if let Some(name) = name {
                    headers.push(("Mcp-Name".into(), name.into()));
                }
            }
            (Era::Session(version), Some(sid)) => {
                headers.push(("MCP-Protocol-Version".into(), version.into()));
                headers.push(("Mcp-Session-Id".into(), sid.clone()));
            }
            (Era::Session(_), None) => {}
        }
        let (status, fields, body) = match self.wire {
            Wire::Http => self.over_http(&headers, body),
            Wire::Parts => self.over_parts(&headers, body),
            Wire::Stdio => unreachable!(),
        };
        let field = |name: &str| {
            fields
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        if let Some(sid) = field("mcp-session-id") {
            self.session = Some(sid);
        }
        Answer {
            status,
            challenge: field("www-authenticate"),
            message: if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&body).unwrap()
            },
        }
    }

    /// One request on a new native HTTP/1.1 connection.
    fn over_http(
        &self,
        headers: &[(String, String)],
        body: &str,
    ) -> (u16, Vec<(String, String)>, String) {
        let mut request = String::from("POST /mcp HTTP/1.1\r\n");
        for (n, v) in headers {
            request.push_str(&format!("{n}: {v}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        let out = Harness::new(&self.service, Transport::Http).send(request.as_bytes());
        let (head, body) = out.split_once("\r\n\r\n").expect("a response head");
        let mut lines = head.lines();
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let fields = lines
            .filter_map(|l| l.split_once(": "))
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
        (status, fields, body.to_owned())
    }

    /// One request as a host HTTP stack hands it over.
    fn over_parts(
        &self,
        headers: &[(String, String)],
        body: &str,
    ) -> (u16, Vec<(String, String)>, String) {
        let head = Head::new(
            "POST",
            "/mcp",
            1,
            headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes())),
        );
        let mut conn = Connection::http_request(
            &self.service,
            head,
            Ok(bytes::Bytes::copy_from_slice(body.as_bytes())),
            None,
            Instant::ZERO,
        );
        let (mut status, mut fields, mut out) = (0, Vec::new(), Vec::new());
        while let Some(output) = conn.poll_output() {
            match output {
                Output::Respond(r) => {
                    status = r.status;
                    fields = r
                        .headers
                        .into_iter()
                        .map(|(n, v)| (n.into_owned(), v.into_owned()))
                        .collect();
                }
                Output::Transmit(b) => out.extend_from_slice(&b),
                Output::Invoke(inv) => {
                    let call = inv.call;
                    let outcome = block_on(inv.run(Arc::new(snodo_proto::NullSink)));
                    conn.complete(call, outcome, Instant::ZERO).unwrap();
                }
                Output::Cancel(_) | Output::Close => {}
            }
        }
        (status, fields, String::from_utf8(out).unwrap())
    }
}

/// What a refusal of the request `id` 2 for want of `scope` looks like.
fn refused(wire: Wire, scope: &str) -> Answer {
    let message = serde_json::from_str(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"error":{FORBIDDEN}}}"#
    ))
    .unwrap();
    match wire {
        Wire::Stdio => Answer {
            status: 0,
            challenge: None,
            message,
        },
        Wire::Http | Wire::Parts => Answer {
            status: 403,
            challenge: Some(format!(
                r#"Bearer error="insufficient_scope", scope="{scope}", resource_metadata="{PRM}""#
            )),
            message,
        },
    }
}

/// Each target's request and the scope it needs.
const TARGETS: &[(&str, Option<&str>, &str, &str)] = &[
    (
        "tools/call",
        Some("secret_tool"),
        r#""name":"secret_tool""#,
        "tools:secret",
    ),
    (
        "prompts/get",
        Some("secret_prompt"),
        r#""name":"secret_prompt""#,
        "prompts:secret",
    ),
    (
        "resources/read",
        Some("notes://secret"),
        r#""uri":"notes://secret""#,
        "notes:secret",
    ),
    (
        "resources/read",
        Some("notes://vault/7"),
        r#""uri":"notes://vault/7""#,
        "notes:secret",
    ),
    (
        "completion/complete",
        None,
        r#""ref":{"type":"ref/resource","uri":"notes://vault/{id}"},"argument":{"name":"id","value":"7"}"#,
        "notes:secret",
    ),
    (
        "completion/complete",
        None,
        r#""ref":{"type":"ref/prompt","name":"secret_prompt"},"argument":{"name":"a","value":"b"}"#,
        "prompts:secret",
    ),
];

#[test]
fn a_caller_without_the_targets_scope_is_refused_on_every_wire_and_era() {
    for wire in [Wire::Stdio, Wire::Http, Wire::Parts] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            let mut client = Client::new(wire, era, "narrow", &ran);
            for (method, name, params, scope) in TARGETS {
                assert_eq!(
                    client.request(method, *name, params),
                    refused(wire, scope),
                    "{method} over {wire:?} in {era:?}"
                );
            }
            assert_eq!(
                ran.load(Ordering::SeqCst),
                0,
                "{wire:?} {era:?}: nothing runs"
            );
        }
    }
}

/// The audience rule holds wherever a token is read: native HTTP and
/// host-parsed requests, for a 2026-07-28 request and for the first
/// message of a session (its `initialize`) alike, before anything runs.
#[test]
fn a_token_for_another_audience_is_refused_on_every_http_wire_and_era() {
    let invalid = Answer {
        status: 401,
        challenge: Some(format!(
            r#"Bearer error="invalid_token", error_description="The token was issued for another audience", scope="mcp", resource_metadata="{PRM}""#
        )),
        message: serde_json::from_str(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#,
        )
        .unwrap(),
    };
    for wire in [Wire::Http, Wire::Parts] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            let mut client = Client {
                wire,
                era,
                token: "foreign",
                service: service("narrow", &ran),
                stdio: None,
                session: None,
            };
            let answer = match era {
                Era::Stateless => {
                    client.request("tools/call", Some("secret_tool"), r#""name":"secret_tool""#)
                }
                Era::Session(version) => client.exchange(
                    "initialize",
                    None,
                    &format!(
                        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
                    ),
                ),
            };
            assert_eq!(answer, invalid, "{wire:?} {era:?}");
            assert_eq!(
                ran.load(Ordering::SeqCst),
                0,
                "{wire:?} {era:?}: nothing runs"
            );
        }
    }
}

#[test]
fn a_caller_with_the_scopes_is_served_on_every_wire_and_era() {
    for wire in [Wire::Stdio, Wire::Http, Wire::Parts] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            let mut client = Client::new(wire, era, "wide", &ran);
            let answer =
                client.request("tools/call", Some("secret_tool"), r#""name":"secret_tool""#);
            assert_eq!(
                answer.message["result"]["content"][0]["text"], "ran",
                "{wire:?} {era:?}"
            );
            for (method, name, params, _) in TARGETS {
                let answer = client.request(method, *name, params);
                assert!(
                    answer.message.get("result").is_some(),
                    "{method} {wire:?} {era:?}: {answer:?}"
                );
                assert!(matches!(answer.status, 0 | 200), "{answer:?}");
            }
            assert_eq!(ran.load(Ordering::SeqCst), 7, "{wire:?} {era:?}");
        }
    }
}

/// A subscription to a resource is a standing read of it: a listen stream
/// (2026-07-28) or `resources/subscribe` (a session) naming a resource
/// the caller may not read is refused like the read.
#[test]
fn subscribing_to_a_resource_needs_its_scopes() {
    for wire in [Wire::Stdio, Wire::Http, Wire::Parts] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            let mut client = Client::new(wire, era, "narrow", &ran);
            let answer = match era {
                Era::Stateless => client.request(
                    "subscriptions/listen",
                    None,
                    r#""notifications":{"resourceSubscriptions":["notes://public","notes://secret"]}"#,
                ),
                Era::Session(_) => {
                    client.request("resources/subscribe", None, r#""uri":"notes://secret""#)
                }
            };
            assert_eq!(answer, refused(wire, "notes:secret"), "{wire:?} {era:?}");
        }
    }
    // With the scope, the session's subscription is taken.
    let ran = Arc::new(AtomicUsize::new(0));
    let mut client = Client::new(Wire::Http, Era::Session("2025-11-25"), "wide", &ran);
    let answer = client.request("resources/subscribe", None, r#""uri":"notes://secret""#);
    assert_eq!(
        answer.message,
        serde_json::from_str::<Value>(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#).unwrap()
    );
}

/// The names a list answer holds (`name`, or `uri` / `uriTemplate`).
fn listed(answer: &Answer, key: &str) -> Vec<String> {
    let field = match key {
        "resources" => "uri",
        "resourceTemplates" => "uriTemplate",
        _ => "name",
    };
    answer.message["result"][key]
        .as_array()
        .unwrap_or_else(|| panic!("{answer:?}"))
        .iter()
        .map(|e| e[field].as_str().unwrap().to_owned())
        .collect()
}

/// Each list, what a narrow caller sees of it, and what a wide one sees
/// (in the order the entries were registered).
const LISTS: [(&str, &str, &[&str], &[&str]); 4] = [
    (
        "tools/list",
        "tools",
        &["open_tool", "my_scopes"],
        &["secret_tool", "open_tool", "my_scopes"],
    ),
    (
        "prompts/list",
        "prompts",
        &["open_prompt"],
        &["secret_prompt", "open_prompt"],
    ),
    (
        "resources/list",
        "resources",
        &["notes://public"],
        &["notes://secret", "notes://public"],
    ),
    (
        "resources/templates/list",
        "resourceTemplates",
        &[],
        &["notes://vault/{id}"],
    ),
];

/// One setting hides and refuses: what a caller may not use is not
/// listed to it, in any era or on any wire; a caller holding the scopes
/// sees it.
#[test]
fn lists_show_a_caller_only_what_it_holds_the_scopes_of() {
    for wire in [Wire::Stdio, Wire::Http, Wire::Parts] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            for token in ["narrow", "wide"] {
                let mut client = Client::new(wire, era, token, &ran);
                for (method, key, narrow, wide) in LISTS {
                    let answer = client.request(method, None, r#""cursor":null"#);
                    let want = if token == "narrow" { narrow } else { wide };
                    assert_eq!(
                        listed(&answer, key),
                        want,
                        "{token} {method} {wire:?} {era:?}"
                    );
                }
            }
        }
    }
}

/// Listing what a caller may not use is an opt-in; the call is refused
/// all the same.
#[test]
fn listing_everything_is_an_opt_in_and_still_refuses() {
    for wire in [Wire::Stdio, Wire::Http] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            let service = service_with("narrow", &ran, |auth| auth.list_unauthorized());
            let mut client = Client::of(service, wire, era, "narrow");
            let answer = client.request("tools/list", None, r#""cursor":null"#);
            assert_eq!(
                listed(&answer, "tools"),
                ["secret_tool", "open_tool", "my_scopes"],
                "{wire:?} {era:?}"
            );
            assert_eq!(
                client.request("tools/call", Some("secret_tool"), r#""name":"secret_tool""#),
                refused(wire, "tools:secret")
            );
            assert_eq!(ran.load(Ordering::SeqCst), 0);
        }
    }
}

#[test]
fn a_template_scope_that_is_no_template_fails_the_build() {
    let err = Service::builder()
        .authorization(
            Authorization::new("https://mcp.example.com/mcp", |_: &str| {
                Err(Rejection("none".into()))
            })
            .authorization_server("https://auth.example.com")
            .template_scopes("notes://{unclosed", ["a"]),
        )
        .build()
        .unwrap_err();
    assert!(
        matches!(err, snodo_proto::BuildError::InvalidUriTemplate { ref template, .. } if template == "notes://{unclosed"),
        "{err}"
    );
}

/// A broader scope stands for the narrower ones it names, transitively,
/// in every check (`basic/authorization/index.mdx` § Scope Challenge
/// Handling: servers MUST account for scope hierarchies): the endpoint's,
/// a tool's, a resource's, the lists, and the principal a handler sees;
/// a challenge names only what nothing held implies.
#[test]
fn a_broader_scope_stands_for_the_narrower_ones_it_implies() {
    let hierarchy = |auth: Authorization| {
        auth.scope_implies("all", ["mcp", "notes:admin"])
            .scope_implies("notes:admin", ["tools:secret", "notes:secret"])
            // A loop in the declarations ends.
            .scope_implies("tools:secret", ["all"])
    };
    for wire in [Wire::Stdio, Wire::Http, Wire::Parts] {
        for era in ERAS {
            let ran = Arc::new(AtomicUsize::new(0));
            let service = service_with("all", &ran, hierarchy);
            let mut client = Client::of(service, wire, era, "all");
            let call = client.request("tools/call", Some("secret_tool"), r#""name":"secret_tool""#);
            assert_eq!(
                call.message["result"]["content"][0]["text"], "ran",
                "{wire:?} {era:?}: {call:?}"
            );
            let read = client.request(
                "resources/read",
                Some("notes://vault/7"),
                r#""uri":"notes://vault/7""#,
            );
            assert_eq!(
                read.message["result"]["contents"][0]["text"], "vaulted",
                "{wire:?} {era:?}"
            );
            // Not implied: refused, and the challenge names it alone.
            assert_eq!(
                client.request(
                    "prompts/get",
                    Some("secret_prompt"),
                    r#""name":"secret_prompt""#
                ),
                refused(wire, "prompts:secret"),
                "{wire:?} {era:?}"
            );
            let tools = client.request("tools/list", None, r#""cursor":null"#);
            assert_eq!(
                listed(&tools, "tools"),
                ["secret_tool", "open_tool", "my_scopes"]
            );
            let prompts = client.request("prompts/list", None, r#""cursor":null"#);
            assert_eq!(listed(&prompts, "prompts"), ["open_prompt"]);
            let seen = client.request("tools/call", Some("my_scopes"), r#""name":"my_scopes""#);
            assert_eq!(
                seen.message["result"]["content"][0]["text"],
                "all mcp notes:admin tools:secret notes:secret",
                "granted first, then implied, each once: {wire:?} {era:?}"
            );
        }
    }
    // Without the hierarchy the same token is refused at the endpoint.
    let ran = Arc::new(AtomicUsize::new(0));
    let mut client = Client::of(service("narrow", &ran), Wire::Http, Era::Stateless, "all");
    let answer = client.request("tools/call", Some("open_tool"), r#""name":"open_tool""#);
    assert_eq!(answer.status, 403);
    assert_eq!(
        answer.challenge.as_deref(),
        Some(
            format!(r#"Bearer error="insufficient_scope", scope="mcp", resource_metadata="{PRM}""#)
                .as_str()
        )
    );
}
